// The Storage module. See the module's files for its parts.
