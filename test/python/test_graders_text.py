import unittest

from hud.graders import contains, contains_all, contains_any, exact_match, f1_score, normalize, numeric_match


class NormalizeTest(unittest.TestCase):
    def test_unicode_letters_and_underscore_survive_punctuation_goes(self):
        self.assertEqual(normalize("Ünïcode_wörd!"), "ünïcode_wörd")

    def test_articles_are_dropped_word_bounded_any_case(self):
        self.assertEqual(normalize("The cat ate AN apple, a pear"), "cat ate apple pear")
        # "a" inside a word is not an article.
        self.assertEqual(normalize("Banana theatre"), "banana theatre")

    def test_whitespace_collapses_and_strips(self):
        self.assertEqual(normalize("  hello,\n\tworld...  "), "hello world")

    def test_non_strings_are_stringified(self):
        self.assertEqual(normalize(42), "42")
        self.assertEqual(normalize(None), "none")

    def test_empty(self):
        self.assertEqual(normalize(""), "")
        self.assertEqual(normalize("!!! the ..."), "")


class ExactMatchTest(unittest.TestCase):
    def test_normalized_by_default(self):
        self.assertEqual(exact_match("The Answer: Paris!", "answer paris"), 1.0)
        self.assertEqual(exact_match("Paris", "London"), 0.0)

    def test_without_normalization_strip_and_lower_only(self):
        self.assertEqual(exact_match("  PARIS ", "paris", normalize_text=False), 1.0)
        self.assertEqual(exact_match("Paris!", "paris", normalize_text=False), 0.0)

    def test_unicode(self):
        self.assertEqual(exact_match("ÜNÏCODE_WÖRD?", "ünïcode_wörd"), 1.0)

    def test_empty_inputs(self):
        self.assertEqual(exact_match("", ""), 1.0)
        self.assertEqual(exact_match("the", ""), 1.0)
        self.assertEqual(exact_match("", "x"), 0.0)


class ContainsTest(unittest.TestCase):
    def test_case_insensitive_by_default(self):
        self.assertEqual(contains("Hello World", "WORLD"), 1.0)
        self.assertEqual(contains("Hello World", "WORLD", case_sensitive=True), 0.0)
        self.assertEqual(contains("Hello World", "World", case_sensitive=True), 1.0)

    def test_plain_substring_no_normalization(self):
        self.assertEqual(contains("a-b", "a b"), 0.0)
        self.assertEqual(contains("Grüße", "GRÜ"), 1.0)

    def test_any_and_all(self):
        self.assertEqual(contains_any("red fish", ["blue", "RED"]), 1.0)
        self.assertEqual(contains_any("red fish", ["blue", "green"]), 0.0)
        self.assertEqual(contains_all("red fish", ["red", "FISH"]), 1.0)
        self.assertEqual(contains_all("red fish", ["red", "cat"]), 0.0)
        self.assertEqual(contains_all("red fish", ["Red"], case_sensitive=True), 0.0)

    def test_empty_lists(self):
        self.assertEqual(contains_all("x", []), 1.0)
        self.assertEqual(contains_any("x", []), 0.0)

    def test_empty_strings(self):
        self.assertEqual(contains("", ""), 1.0)
        self.assertEqual(contains("", "x"), 0.0)


class NumericMatchTest(unittest.TestCase):
    def test_first_number_and_tolerance(self):
        self.assertEqual(numeric_match("The answer is 42 (not 43)", 42), 1.0)
        self.assertEqual(numeric_match("about 3.14159", 3.14, tolerance=0.01), 1.0)
        self.assertEqual(numeric_match("about 3.2", 3.14, tolerance=0.01), 0.0)
        self.assertEqual(numeric_match("-7 degrees", -7), 1.0)
        self.assertEqual(numeric_match("5.", 5), 1.0)

    def test_exact_by_default(self):
        self.assertEqual(numeric_match("10.0001", 10), 0.0)

    def test_only_the_first_number_counts(self):
        self.assertEqual(numeric_match("1 then 42", 42), 0.0)

    def test_unicode_digits_count(self):
        # Arabic-Indic and Devanagari digits are \d in Python's re and float() reads them.
        self.assertEqual(numeric_match("الجواب ٤٢", 42), 1.0)
        self.assertEqual(numeric_match("उत्तर ३.५ है", 3.5), 1.0)

    def test_no_number(self):
        self.assertEqual(numeric_match("no digits here", 0), 0.0)
        self.assertEqual(numeric_match("", 0), 0.0)

    def test_thousands_separator_is_not_understood(self):
        # The pattern stops at the comma: "1,000" reads as 1.
        self.assertEqual(numeric_match("1,000", 1), 1.0)


class F1Test(unittest.TestCase):
    def test_documented_example(self):
        self.assertAlmostEqual(f1_score("The capital is Paris, France", "Paris"), 0.4)

    def test_multiplicity(self):
        # predicted [cat, cat, dog] vs gold [cat, dog, dog]: overlap is 2 (one cat, one dog)
        self.assertAlmostEqual(f1_score("cat cat dog", "cat dog dog"), 2 / 3)

    def test_identical_and_disjoint(self):
        self.assertEqual(f1_score("Ünïcode wörd", "ünïcode WÖRD!"), 1.0)
        self.assertEqual(f1_score("alpha", "beta"), 0.0)

    def test_empty_sides(self):
        self.assertEqual(f1_score("", "x"), 0.0)
        self.assertEqual(f1_score("x", ""), 0.0)
        self.assertEqual(f1_score("the a an", "the"), 0.0)


if __name__ == "__main__":
    unittest.main()
