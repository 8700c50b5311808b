"""The language-model client: OpenAI-compatible chat over HTTP that a Stop can interrupt.

Imported only where a model is used (it pulls in httpx); ``usage`` is light and imported by
the agent's events.
"""
