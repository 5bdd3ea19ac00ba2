"""The tools that reach the world (web_search, get_weather, fetch_url) and the guarded HTTP client under them."""
