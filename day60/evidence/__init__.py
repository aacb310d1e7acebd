"""Evidence: where every output came from, reports that carry their inputs, and checking them."""
