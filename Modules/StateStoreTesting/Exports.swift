// The explorer is part of the testing toolkit; it lives in its own module so that tools that
// run explorations outside tests (appcore-batch --explore) need not link the Testing library.
@_exported import StateExploration
