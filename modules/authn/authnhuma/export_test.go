package authnhuma

// Notes is notes, for the tests of what `check` reads through the
// adapters' handlers.
var Notes = notes
