"""Per-user configuration: where files live (paths), the settings file, the API key store, logging."""
