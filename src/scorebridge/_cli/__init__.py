"""The `scorebridge` command line; each subcommand imports only what it needs."""
