"""Fake external services for tests (a scripted OpenAI-compatible model server)."""
