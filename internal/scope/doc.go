// Package scope defines ownership (SPEC §4): the three reserved tags written
// in the CreateSecret request, the scope digest that names one configuration's
// namespace, and the source digest that ties a secret to one document.
//
// Invariant: the digests are stable across releases; changing them would
// orphan every secret users have already created.
package scope
