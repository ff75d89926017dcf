"""Project-wide fixtures. Sandbox fixtures live here because proxy, codemod and audit tests all use the sandbox as their v2 upstream."""
