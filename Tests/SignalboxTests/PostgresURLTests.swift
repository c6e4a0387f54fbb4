import Testing
@testable import Signalbox

/// Store URLs as libpq reads them (issue 27): several hosts, each with its port, and
/// `target_session_attrs`; what a replica cannot use is refused with the reason.
@Suite struct PostgresURLTests {
    typealias Host = PostgresURL.Host

    @Test func oneHostKeepsItsPortUserPasswordAndDatabase() throws {
        let url = try PostgresURL("postgres://sb:s%40cret@db.example:6432/signalbox?sslmode=disable")
        #expect(url.hosts == [Host(name: "db.example", port: 6432)])
        #expect(url.username == "sb" && url.password == "s@cret" && url.database == "signalbox")
        #expect(url.sslMode == .disable && url.targetSessionAttributes == .any)
        #expect(!url.choosesAmongHosts)
        #expect(url.description == "postgres://sb@db.example:6432/signalbox?sslmode=disable")
        #expect(try PostgresURL("postgresql://sb@db/x").hosts == [Host(name: "db", port: 5432)])
    }

    @Test func severalHostsInOrderEachWithItsPort() throws {
        let url = try PostgresURL(
            "postgres://sb:pw@h1:5432,h2,[::1]:5434,[fe80::2]/signalbox?target_session_attrs=read-write&connect_timeout=2")
        #expect(url.hosts == [
            Host(name: "h1", port: 5432), Host(name: "h2", port: 5432), Host(name: "::1", port: 5434), Host(name: "fe80::2", port: 5432),
        ])
        #expect(url.targetSessionAttributes == .readWrite && url.connectTimeout == .seconds(2))
        #expect(url.choosesAmongHosts)
        #expect(url.description == "postgres://sb@h1:5432,h2:5432,[::1]:5434,[fe80::2]:5432/signalbox?sslmode=prefer&target_session_attrs=read-write")
        #expect(!url.description.contains("pw"))
        #expect(try PostgresURL("postgres://sb@h1/x?target_session_attrs=primary").targetSessionAttributes == .primary)
        // One host asked to be a primary is probed too (it may be a standby).
        #expect(try PostgresURL("postgres://sb@h1/x?target_session_attrs=primary").choosesAmongHosts)
        #expect(try PostgresURL("postgres://sb@h1,h2/x").choosesAmongHosts)
    }

    @Test func badURLsAreRefusedNamingWhatIsWrong() {
        func refusal(_ text: String) -> String {
            do {
                _ = try PostgresURL(text)
                return "accepted"
            } catch {
                return error.description
            }
        }
        #expect(refusal("postgres://h1/db").contains("names no user"))
        #expect(refusal("postgres://sb@/db").contains("names no host"))
        #expect(refusal("postgres://sb@h1,/db").contains("names no host after h1:5432"))
        #expect(refusal("postgres://sb@h1:99999/db").contains("port 99999 of h1"))
        #expect(refusal("postgres://sb@h1:x/db").contains("port x of h1"))
        #expect(refusal("postgres://sb@[::1/db").contains("closing ]"))
        #expect(refusal("postgres://sb@%2Ftmp/db").contains("Unix socket"))
        #expect(refusal("postgres://sb@h1/db?target_session_attrs=standby").contains("takes no writes"))
        #expect(refusal("postgres://sb@h1/db?target_session_attrs=prefer-standby").contains("takes no writes"))
        #expect(refusal("postgres://sb@h1/db?target_session_attrs=read-only").contains("takes no writes"))
        #expect(refusal("postgres://sb@h1/db?target_session_attrs=fastest").contains("not one of any, read-write, primary"))
        #expect(refusal("postgres://sb@h1/db?sslmode=maybe").contains("sslmode=maybe"))
        #expect(refusal("postgres://sb@h1/db?host=h2").contains("option host is not supported"))
        let many = (1...17).map { "h\($0)" }.joined(separator: ",")
        #expect(refusal("postgres://sb@\(many)/db").contains("at most 16"))
        #expect(refusal("mysql://sb:pw@h1/db") == "mysql://sb:***@h1/db is not a postgres://user@host:port/database URL")
    }

    @Test func theFirstQualifyingHostInTheURLsOrderIsChosen() {
        typealias Role = TargetSessionAttributes.ServerRole
        let down: Role? = nil
        let probes: [(host: String, role: Role?)] = [("h1", down), ("h2", .standby), ("h3", .primary), ("h4", .primary)]
        #expect(TargetSessionAttributes.readWrite.choose(from: probes) == "h3")
        #expect(TargetSessionAttributes.primary.choose(from: probes) == "h3")
        #expect(TargetSessionAttributes.any.choose(from: probes) == "h2")  // libpq's any: the first that answers
        #expect(TargetSessionAttributes.readWrite.choose(from: [("h1", Role.standby), ("h2", down)]) == nil)
        // A primary set read-only (default_transaction_read_only) is a primary, but not read-write.
        let readOnlyPrimary = Role(inRecovery: false, readOnly: true)
        #expect(TargetSessionAttributes.primary.accepts(readOnlyPrimary) && !TargetSessionAttributes.readWrite.accepts(readOnlyPrimary))
    }
}
