"""Benchmark harnesses that run the agent over a library: HotpotQA-style multi-hop QA (``hotpotqa``).

Outside the agent package: a harness builds a library and a search baseline (Tantivy), which
the agent never sees; the agent must not import this package, and the application layer
(``Session.evaluate``) is what calls it.
"""
