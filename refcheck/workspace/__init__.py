"""What to check and how: configuration files, source discovery, compile databases."""
