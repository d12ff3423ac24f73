"""What a wrong variant's verdict must say, checked the same way in every test file that lists the
words by field: ``{field: words}``, the words a string or several."""


def assert_says(said, expected):
    """Each field of ``said`` (a Verdict, or a dict of its problem and hint) holds its expected
    words."""
    for field, words in expected.items():
        text = said[field] if isinstance(said, dict) else getattr(said, field)
        for part in (words,) if isinstance(words, str) else words:
            assert part in text, said
