"""The error every stage raises for bad input from the user: configuration, arguments, files."""


class ConfigError(Exception):
    """A usage or configuration problem; the message is shown as is and the exit code is 2."""
