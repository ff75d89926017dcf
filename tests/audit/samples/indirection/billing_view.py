"""Formats rows fetched elsewhere: the only v1 signal is a response field read."""


def row(p):
    return f"{p['name']}: {p['costPerHr']:.2f} $/h"
