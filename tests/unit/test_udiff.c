// SPDX-License-Identifier: GPL-2.0-or-later
#include "unit.h"
#include "core/udiff.h"

static void expect(const char *old, const char *new, const char *want)
{
	char *d = gp_udiff(old, new, "a/f", "b/f");

	if (!want) {
		assert_null(d);
		return;
	}
	assert_non_null(d);
	assert_string_equal(d, want);
	free(d);
}

static void test_same(void **state)
{
	(void)state;
	expect("a\nb\n", "a\nb\n", NULL);
	expect("", "", NULL);
	expect(NULL, NULL, NULL);
}

static void test_created(void **state)
{
	(void)state;
	expect(NULL, "x\ny\n", "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n");
	expect("x\n", NULL, "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n");
	/* an empty file that is not there yet: created, nothing in it */
	expect(NULL, "", "--- /dev/null\n+++ b/f\n");
}

static void test_change(void **state)
{
	(void)state;
	/* as diff -u prints it: 3 lines of context, the hunk's lengths */
	expect("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
	       "--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
	/* two changes 7 lines apart are two hunks; 6 apart, one */
	expect("a\n1\n2\n3\n4\n5\n6\n7\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\nB\n",
	       "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n"
	       "@@ -6,4 +6,4 @@\n 5\n 6\n 7\n-b\n+B\n");
	expect("a\n1\n2\n3\n4\n5\n6\nb\n", "A\n1\n2\n3\n4\n5\n6\nB\n",
	       "--- a/f\n+++ b/f\n@@ -1,8 +1,8 @@\n-a\n+A\n 1\n 2\n 3\n 4\n 5\n 6\n-b\n+B\n");
	/* a line inserted at the top */
	expect("b\nc\n", "a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n+a\n b\n c\n");
}

static void test_no_newline(void **state)
{
	(void)state;
	expect("a\nb", "a\nb\n",
	       "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
}

/* Texts too big to align are still a correct diff: every line out, every line in. */
static void test_big(void **state)
{
	size_t n = 3000, i, o = 0, p = 0;
	char *a = gp_xcalloc(n * 8 + 1, 1), *b = gp_xcalloc(n * 8 + 1, 1), *d;

	(void)state;
	for (i = 0; i < n; i++) {
		o += (size_t)sprintf(a + o, "a%zu\n", i);
		p += (size_t)sprintf(b + p, "b%zu\n", i);
	}
	d = gp_udiff(a, b, "a/f", "b/f");
	assert_non_null(d);
	assert_non_null(strstr(d, "@@ -1,3000 +1,3000 @@\n-a0\n"));
	assert_non_null(strstr(d, "-a2999\n+b0\n"));
	free(d);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same),   cmocka_unit_test(test_created),
		cmocka_unit_test(test_change), cmocka_unit_test(test_no_newline),
		cmocka_unit_test(test_big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
