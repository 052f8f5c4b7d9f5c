"""refcheck: checks TH's Golden Rule of reference counting on every path."""

__version__ = "0.1.0"
