// A front end imports AppHost alone: the modules whose types AppHost's API speaks in come with it
// (the app's actions and state, notes and ids, login styles, view models, the store, clients).
@_exported import AppEnvironment
@_exported import Models
@_exported import Reducers
@_exported import StateStore
@_exported import ViewModels

// Of storage, only what the host's API names: the error behind an `AppHostError`, what a commit
// survives and the live clients' settings (the database itself stays behind the host).
@_exported import struct Persistence.DatabaseError
@_exported import enum Persistence.Durability
@_exported import struct Persistence.LiveConfiguration
