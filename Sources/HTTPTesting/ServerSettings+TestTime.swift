import HTTP

extension ServerSettings {
    /// These settings with each timeout, and the heartbeat interval, that a test left at its
    /// default stretched by ``TestTime/scale``. A timeout a test sets is one it wants to see
    /// fire, and stays; the defaults (10 s for a head, 30 s for a body or a stalled write, 60 s
    /// idle, a heartbeat every 15 s) are times a test means never to reach, which a sanitized
    /// run on a busy machine did reach: the server closed connections its clients had not yet
    /// written to, and streams sent heartbeats where a test awaited its event.
    func scalingDefaultTimeouts() -> ServerSettings {
        let defaults = ServerSettings()
        var settings = self
        if settings.headerReadTimeout == defaults.headerReadTimeout { settings.headerReadTimeout = TestTime.scaled(defaults.headerReadTimeout) }
        if settings.bodyReadTimeout == defaults.bodyReadTimeout { settings.bodyReadTimeout = TestTime.scaled(defaults.bodyReadTimeout) }
        if settings.idleTimeout == defaults.idleTimeout { settings.idleTimeout = TestTime.scaled(defaults.idleTimeout) }
        if settings.writeTimeout == defaults.writeTimeout { settings.writeTimeout = TestTime.scaled(defaults.writeTimeout) }
        if settings.heartbeatInterval == defaults.heartbeatInterval { settings.heartbeatInterval = TestTime.scaled(defaults.heartbeatInterval) }
        return settings
    }
}
