-- v1bridge: keep-v1
INSERT INTO endpoints_seen (url) VALUES ('https://rest.runpod.io/v1/pods');
