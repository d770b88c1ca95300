// The floor under the service benchmark: a bare Hummingbird route, served as `swcred serve`
// serves (HTTP/1.1 on a Unix socket, the same backlog), that reads the body and answers a
// constant the size of one released credential. No token, no vault, no middleware: what is left
// is the cost of the HTTP server itself and of the benchmark's client.
//
//   service-floor SOCKET
import Foundation
import Hummingbird
import NIOCore

let socketPath = CommandLine.arguments[1]
unlink(socketPath)
let answer = ByteBuffer(
    string: #"[{"server":"shop.example","account":"bench@example.com","password":"Xq7-vL9p-Rt2w-Kd4m-Zs8b"}]"#)
let router = Router()
router.post("/v1/credentials/request") { request, _ in
    _ = try await request.body.collect(upTo: 64 * 1024)
    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: answer))
}
let application = Application(
    router: router, server: .http1(),
    configuration: .init(address: .unixDomainSocket(path: socketPath), serverName: nil, backlog: 4096))
try await application.runService()
