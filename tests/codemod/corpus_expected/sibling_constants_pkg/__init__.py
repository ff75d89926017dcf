"""Fleet client split across modules: constants live next to the client."""
