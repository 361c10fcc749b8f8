package ratelimit

// Parse and Spec are the limit parser and its result, for TestParse.
var Parse = parse

type Spec = limitSpec
