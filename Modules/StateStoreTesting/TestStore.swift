import StateStore
