"""The DRF glue every app uses: errors, permissions, paging, filters, schema, parsers, throttles."""
