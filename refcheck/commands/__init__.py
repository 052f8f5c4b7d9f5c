"""The `refcheck` commands: check, rules, explain, cfg, doctor."""
