"""The research agent: a search–read–answer loop with verified citations, as a generator of events."""
