"""Research workflows built on the agent loop: the literature matrix and the cited draft."""
