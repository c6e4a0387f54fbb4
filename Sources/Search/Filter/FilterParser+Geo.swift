extension FilterParser.Cursor {
    /// `_geoRadius(lat, lng, meters)` or `_geoBoundingBox([lat, lng], [lat, lng])` at the current
    /// word, which starts with `_geo`.
    mutating func geoFunction(_ word: String) throws(FilterError) -> FilterExpression {
        let function = current
        switch word {
        case "_geoRadius":
            try requireGeoField(function)
            advance()
            try expect(.leftParenthesis, "'('", hint: "_geoRadius(lat, lng, meters)")
            let latitude = try number("the latitude", limit: 90)
            try expect(.comma, "','")
            let longitude = try number("the longitude", limit: 180)
            try expect(.comma, "','")
            let meters = try number("the radius in meters", limit: nil)
            try expect(.rightParenthesis, "')'", hint: "_geoRadius takes 3 numbers: lat, lng, meters")
            return .geoRadius(center: GeoPoint(latitude: latitude, longitude: longitude), meters: meters)
        case "_geoBoundingBox":
            try requireGeoField(function)
            advance()
            try expect(.leftParenthesis, "'('", hint: "_geoBoundingBox([lat, lng], [lat, lng])")
            let topLeftToken = current
            let topLeft = try point("top-left")
            try expect(.comma, "','")
            let bottomRight = try point("bottom-right")
            try expect(.rightParenthesis, "')'", hint: "_geoBoundingBox takes 2 points: top-left, bottom-right")
            guard topLeft.latitude >= bottomRight.latitude else {
                throw FilterError(
                    position: topLeftToken.position,
                    "the top-left corner's latitude is below the bottom-right corner's: give the top-left corner first")
            }
            return .geoBoundingBox(topLeft: topLeft, bottomRight: bottomRight)
        case "_geoPoint", "_geo", "_geoDistance":
            throw FilterError(
                position: function.position,
                "\(word) cannot be filtered; filter by distance with _geoRadius(lat, lng, meters) or _geoBoundingBox([lat, lng], [lat, lng])")
        default:
            return try condition()
        }
    }

    /// The geo functions read the collection's geo field: there must be one.
    func requireGeoField(_ function: FilterToken) throws(FilterError) {
        guard !schema.fields.contains(where: { $0.type == .geo }) else { return }
        throw FilterError(position: function.position, "\(function.quotedForMessage) needs a geo field, and the collection declares none")
    }

    /// `[lat, lng]`, the `corner` corner of a bounding box.
    mutating func point(_ corner: String) throws(FilterError) -> GeoPoint {
        try expect(.leftBracket, "'['", hint: "a point is written [lat, lng]")
        let latitude = try number("the \(corner) latitude", limit: 90)
        try expect(.comma, "','")
        let longitude = try number("the \(corner) longitude", limit: 180)
        try expect(.rightBracket, "']'", hint: "a point is [lat, lng]")
        return GeoPoint(latitude: latitude, longitude: longitude)
    }

    /// A bare decimal number within `-limit...limit` (`nil`: zero or more), described as `role`.
    mutating func number(_ role: String, limit: Double?) throws(FilterError) -> Double {
        let token = current
        guard case .word(let text) = token.kind, token.keyword == nil else { throw expected("a number (\(role))") }
        let value: Double
        switch DecimalNumber.parse(text) {
        case .success(let parsed): value = parsed
        case .failure(.notFinite): throw FilterError(position: token.position, "'\(FilterToken.abbreviated(text))' is not a finite number")
        case .failure(.syntax): throw expected("a number (\(role))")
        }
        if let limit, abs(value) > limit {
            throw FilterError(position: token.position, "\(role) \(text) is outside -\(Int(limit))...\(Int(limit))")
        }
        if limit == nil, value < 0 {
            throw FilterError(position: token.position, "\(role) must be 0 or more, not \(text)")
        }
        advance()
        return value
    }

    mutating func expect(_ kind: FilterToken.Kind, _ spelled: String, hint: String? = nil) throws(FilterError) {
        guard current.kind == kind else { throw expected(spelled, hint: hint) }
        advance()
    }
}
