"""One run: units to workers, each unit's check (parse, build, analyse), progress."""
