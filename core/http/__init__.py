"""Request guards below DRF: body caps, chunked bodies, NUL bytes, the CORS rule for reads."""
