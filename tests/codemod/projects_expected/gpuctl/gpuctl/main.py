"""gpuctl: deploy a model as a serverless endpoint, smoke-test it, tear it down."""
import asyncio
import sys

from . import queue, serverless, templates
from .http import close


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    name, image = argv[0], argv[1]
    try:
        tpl = templates.create(name + "-tpl", image, env={"MODEL": name})
        ep = serverless.create_endpoint(name, tpl["id"], max_workers=2)
        print("endpoint", ep["name"], ep["workers"]["max"], ep["workers"]["idleTimeout"], ep["timeout"])
        print("describe", serverless.describe(ep["id"]))
        print("smoke", serverless.run_sync(ep["id"], {"prompt": "hello"}))
        print("health", asyncio.run(serverless.health(ep["id"])))
        job = queue.submit(ep["id"], {"prompt": "later"})
        print("job", job, queue.status(ep["id"], job), "purged", queue.purge(ep["id"]))
        print("templates", templates.names())
        serverless.delete_endpoint(ep["id"])
        templates.remove(tpl["id"])
        print("templates", templates.names())
    finally:
        close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
