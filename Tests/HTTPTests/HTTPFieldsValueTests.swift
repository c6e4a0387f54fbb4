import HTTP
import HTTPTypes
import Testing

/// `HTTPFields.value(of:)`: what the subscript gives, without its lazy join.
struct HTTPFieldsValueTests {
    @Test func aFieldsValueIsWhatTheSubscriptGives() {
        var fields: HTTPFields = [.contentType: "application/json", .accept: "text/plain"]
        #expect(fields.value(of: .contentType) == "application/json")
        #expect(fields.value(of: .authorization) == nil)
        #expect(fields.value(of: HTTPField.Name("CONTENT-type")!) == "application/json")
        fields.append(HTTPField(name: .accept, value: "application/json"))
        #expect(fields.value(of: .accept) == "text/plain, application/json")
        for name in [HTTPField.Name.contentType, .accept, .authorization] { #expect(fields.value(of: name) == fields[name]) }
    }
}
