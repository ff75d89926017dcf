const V1 = "https://rest.runpod.io/v1"; // v1bridge: keep-v1
const OLD_DOCS = "https://rest.runpod.io/v1/docs"; /* v1bridge: ignore */
// rp-migrate: ignore
const sample = { imageName: "in a fixture, not a request" };
const live = { imageName: "still sent to v1" };
