"""Hooks other tools register: each gets the API object its host hands over."""


def on_start(api, log):
    for template in api.get("/templates"):
        log.info("template %s: %s", template["id"], template["imageName"])
