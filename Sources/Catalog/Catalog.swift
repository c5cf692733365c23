// The Catalog module. See the module's files for its parts.
