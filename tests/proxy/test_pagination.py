"""The current v2 through the proxy: paginated lists rebuilt whole, cmd/entrypoint, GPU floors, new fields."""
from __future__ import annotations


async def test_bad_start_cmd_is_a_v1_400_naming_the_v1_field(proxy, auth, recorder):
    """dockerStartCmd moves to cmd as is; a non-string element is refused before v2 sees it, in v1 terms."""
    r = await proxy.post("/v1/pods", json={"imageName": "u", "gpuTypeIds": ["NVIDIA A40"], "dockerStartCmd": [1, 2]},
                         headers=auth)
    assert r.status == 400
    assert await r.json() == {"message": "invalid input: dockerStartCmd: 1 is not of type \"string\"; "
                                         "dockerStartCmd: 2 is not of type \"string\""}
    assert list(recorder) == []
