"""Small services every stage may use: safe file I/O, the terminal, the collector, URLs."""
