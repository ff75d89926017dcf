import { API_BASE } from "./config.js";

const url = (...parts) => [API_BASE, ...parts].join("/");

export function volumes(get) {
  return get(url("networkvolumes"));
}
