#!/usr/bin/env python3
"""What is running and what it costs: dash.py [STATUS]"""
import sys

from rpdash.pods import list_pods
from rpdash.volumes import list_volumes


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    only = argv[0] if argv else None
    total = 0.0
    for pod in list_pods():
        if only and pod["status"] != only:
            continue
        total += pod["cost"]
        print(f"{pod['name']:<12} {pod['status']:<8} {pod['cost']:.3f}")
    print(f"pods {total:.3f}/h")
    for vol in list_volumes():
        print(f"volume {vol['name']} {vol['size']}GB {vol['dataCenter']}")


if __name__ == "__main__":
    sys.exit(main())
