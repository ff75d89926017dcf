#!/usr/bin/env python3
"""stop.py ID: stop the pod."""
import sys

from podsdk.client import RunPodClient


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    RunPodClient().stop(argv[0])
    print("stopped", argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
