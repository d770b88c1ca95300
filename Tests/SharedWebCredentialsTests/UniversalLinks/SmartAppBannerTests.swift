import SharedWebCredentials
import Testing

@Suite("Smart App Banner: the tolerant meta-tag scan and field checks")
struct SmartAppBannerTests {
    static let clips = ["ABCDE12345.com.example.app.Clip"]

    static func banner(_ html: String, clips: [String] = clips) -> SmartAppBanner? {
        SmartAppBanner.find(in: Array(html.utf8), appclipsApps: clips)
    }

    static func codes(_ html: String) -> [String] { banner(html)?.diagnostics.map(\.code) ?? ["(no banner)"] }

    @Test(
        "the tag is found however it is written",
        arguments: [
            #"<head><meta name="apple-itunes-app" content="app-id=123"></head>"#,
            #"<HEAD><META NAME="Apple-iTunes-App" CONTENT="app-id=123"></HEAD>"#,
            #"<head><meta content='app-id=123' name='apple-itunes-app'/></head>"#,
            "<head><meta name=apple-itunes-app content=app-id=123></head>",
            "<head>\n<meta\n  name = \"apple-itunes-app\"\n  content = \"app-id=123\" >\n</head>",
            #"<head><meta charset="utf-8"><meta name="viewport" content="x"><meta name="apple-itunes-app" content=" app-id = 123 , "></head>"#,
        ])
    func found(html: String) throws {
        let banner = try #require(Self.banner(html))
        #expect(banner["app-id"] == "123")
        #expect(banner.diagnostics.isEmpty, "\(banner.diagnostics)")
    }

    @Test(
        "tags in comments, scripts and styles do not count",
        arguments: [
            #"<head><!-- <meta name="apple-itunes-app" content="app-id=1"> --></head>"#,
            #"<head><script>document.write('<meta name="apple-itunes-app" content="app-id=1">')</script></head>"#,
            #"<head><style>/* <meta name="apple-itunes-app" content="app-id=1"> */</style></head>"#,
            #"<head><meta name="description" content="apple-itunes-app"></head>"#,
            "",
            "<meta",
        ])
    func notFound(html: String) {
        #expect(Self.banner(html) == nil)
    }

    @Test("character references in the content are decoded")
    func references() throws {
        let banner = try #require(
            Self.banner(
                #"<meta name="apple-itunes-app" content="app-id=123, app-argument=https://example.com/a?b=1&amp;c=&#50;&#x33;">"#
            ))
        #expect(banner["app-argument"] == "https://example.com/a?b=1&c=23")
        #expect(banner.diagnostics.isEmpty)
    }

    @Test("an App Clip listed under appclips, displayed as a card, is fine")
    func appClip() throws {
        let banner = try #require(
            Self.banner(
                #"<meta name="apple-itunes-app" content="app-id=123, app-clip-bundle-id=com.example.app.Clip, app-clip-display=card">"#
            ))
        #expect(banner.diagnostics.isEmpty, "\(banner.diagnostics)")
        #expect(banner["app-clip-display"] == "card")
    }

    @Test(
        "each field problem has its code",
        arguments: [
            (#"<meta name="apple-itunes-app" content="">"#, "banner-app-id-missing"),
            (#"<meta name="apple-itunes-app">"#, "banner-app-id-missing"),
            (#"<meta name="apple-itunes-app" content="app-id=com.example.app">"#, "banner-app-id-not-numeric"),
            (#"<meta name="apple-itunes-app" content="app-id=12a">"#, "banner-app-id-not-numeric"),
            (
                #"<meta name="apple-itunes-app" content="app-id=1, app-argument=/item/1">"#,
                "banner-app-argument-not-absolute"
            ),
            (
                #"<meta name="apple-itunes-app" content="app-id=1, app-argument=item:">"#,
                "banner-app-argument-not-absolute"
            ),
            (
                #"<meta name="apple-itunes-app" content="app-id=1, app-argument=1https://x">"#,
                "banner-app-argument-not-absolute"
            ),
            (
                #"<meta name="apple-itunes-app" content="app-id=1, app-clip-bundle-id=com.other.Clip">"#,
                "banner-app-clip-not-listed"
            ),
            (
                #"<meta name="apple-itunes-app" content="app-id=1, app-clip-bundle-id=Clip">"#,
                "banner-app-clip-not-child"
            ),
            (
                #"<meta name="apple-itunes-app" content="app-id=1, app-clip-bundle-id=com.example.app.Clip, app-clip-display=banner">"#,
                "banner-app-clip-display"
            ),
            (
                #"<meta name="apple-itunes-app" content="app-id=1, app-clip-display=card">"#,
                "banner-app-clip-display-alone"
            ),
            (#"<meta name="apple-itunes-app" content="app-id=1, appid=2">"#, "banner-unknown-field"),
            (#"<meta name="apple-itunes-app" content="app-id=1, app-id=2">"#, "banner-field-repeated"),
            (#"<meta name="apple-itunes-app" content="app-id=1, card">"#, "banner-field-no-value"),
            (#"<body><meta name="apple-itunes-app" content="app-id=1"></body>"#, "banner-not-in-head"),
            (
                "<head><meta name=\"apple-itunes-app\" content=\"app-id=1\">\n<meta name=\"apple-itunes-app\" content=\"app-id=2\"></head>",
                "banner-duplicate"
            ),
        ])
    func problem(html: String, code: String) {
        #expect(Self.codes(html).contains(code), "\(Self.codes(html))")
    }

    @Test("errors are errors, advice is a warning, and messages quote the value")
    func severities() throws {
        let banner = try #require(Self.banner(#"<meta name="apple-itunes-app" content="app-id=abc, x=1">"#))
        #expect(banner.diagnostics.first { $0.code == "banner-app-id-not-numeric" }?.severity == .error)
        #expect(
            banner.diagnostics.first { $0.code == "banner-app-id-not-numeric" }?.message.contains("\"abc\"") == true)
        #expect(banner.diagnostics.first { $0.code == "banner-unknown-field" }?.severity == .warning)
        let listed = try #require(
            Self.banner(#"<meta name="apple-itunes-app" content="app-id=1, app-clip-bundle-id=a.b">"#, clips: []))
        #expect(listed.diagnostics.first?.message.contains("it lists none") == true)
    }

    @Test("the banner's line is reported")
    func line() throws {
        #expect(try #require(Self.banner("<html>\n<head>\n\n<meta name=apple-itunes-app content=app-id=1>")).line == 4)
    }
}
