"""Text rules shared by every other package: languages and CJK, kinds of passage, snippets, key masking."""
