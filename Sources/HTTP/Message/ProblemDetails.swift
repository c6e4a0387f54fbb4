import HTTPTypes

/// RFC 9457 problem details, rendered as `application/problem+json`.
enum ProblemDetails {
    /// The response for `error`: an `HTTPError` keeps its status and fields;
    /// a parse error keeps its status; anything else is a 500 without detail.
    static func response(for error: any Error, instance: String?) -> Response {
        switch error {
        case let error as HTTPError:
            return response(status: error.status, title: error.title, detail: error.detail, type: error.type, instance: instance, headerFields: error.headerFields)
        case let error as RequestParseError:
            return response(status: error.status, title: error.status.reasonPhrase, detail: error.reason, instance: instance)
        default:
            return response(status: .internalServerError, title: "Internal Server Error", detail: nil, instance: instance)
        }
    }

    static func response(status: HTTPResponse.Status, title: String, detail: String?, type: String? = nil, instance: String?, headerFields: HTTPFields = [:]) -> Response {
        var json = "{\"type\":" + JSONString.quote(type ?? "about:blank")
        json += ",\"title\":" + JSONString.quote(title)
        json += ",\"status\":\(status.code)"
        if let detail { json += ",\"detail\":" + JSONString.quote(detail) }
        if let instance { json += ",\"instance\":" + JSONString.quote(instance) }
        json += "}"
        var fields = headerFields
        fields[.contentType] = "application/problem+json"
        return Response(status: status, headerFields: fields, body: Array(json.utf8))
    }
}

/// Minimal JSON string quoting for the few bodies the server writes itself.
enum JSONString {
    static func quote(_ string: String) -> String {
        var out = "\""
        out.reserveCapacity(string.utf8.count + 2)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
