import sys

from v1bridge.cli import main

sys.exit(main())
