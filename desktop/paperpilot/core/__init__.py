"""Everything that is not Qt: library, import, index and agent. Must never import Qt."""
