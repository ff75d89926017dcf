# Path segments of the REST API, kept in one place so the client and the tests agree.
_REGISTRY_AUTH_PATH = "containerregistryauth"
_VOLUMES_PATH = "networkvolumes"
_PODS_PATH = "pods"
