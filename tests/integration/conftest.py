def pytest_configure(config):
    config.addinivalue_line(
        "markers", "integration: installs refcheck with external tools (pre-commit); slow")
