"""The one execution layer: the `Executor` interface (`base`), this machine's executor with its
warm pools and the outcome cache (`local`, `cache`), and a Ray cluster's (`ray`)."""
