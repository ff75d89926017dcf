"""Launch a training run on the first idle pod."""
import sys

from rpclient import RunpodAPI


def main() -> int:
    api = RunpodAPI()
    idle = [p for p in api.pods() if p.get("desiredStatus") == "EXITED"]
    if not idle:
        print("no idle pod", file=sys.stderr)
        return 1
    print(idle[0]["id"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
