stand-in for an encrypted Cascade trajectory: never read
