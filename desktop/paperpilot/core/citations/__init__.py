"""Citations: CSL-JSON metadata, reference styles, in-text markers and bibliographic formats.

Items are CSL-JSON dicts everywhere (``CslItem`` validates and normalises them). Styles are
renderers registered by name in ``STYLES``; each turns an item into plain text and HTML.
"""
