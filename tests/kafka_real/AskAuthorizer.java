import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.apache.kafka.metadata.authorizer.StandardAuthorizer;
import org.apache.kafka.server.authorizer.Action;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;

/**
 * Kafka's own StandardAuthorizer, asked from the tests (tests/kafka_real/test_caller_principal.py).
 * Reads tab-separated lines on stdin: "super\tP;Q" starts a new authorizer with those super users;
 * "acl\tname\tpattern\tprincipal\thost\top\tperm" adds a TOPIC ACL; "ask\ttype\tname\thost\top\ttopic"
 * prints the decision for a session principal (type, name: either may be empty) on a LITERAL topic.
 */
public class AskAuthorizer {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        StandardAuthorizer authorizer = null;
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            if (f[0].equals("super")) {
                authorizer = new StandardAuthorizer();
                authorizer.configure(Map.of("super.users", f[1], "node.id", "1"));
            } else if (f[0].equals("acl")) {
                authorizer.addAcl(Uuid.randomUuid(), new StandardAcl(ResourceType.TOPIC, f[1],
                    PatternType.fromString(f[2]), f[3], f[4], AclOperation.fromString(f[5]),
                    AclPermissionType.fromString(f[6])));
            } else {
                authorizer.completeInitialLoad();
                KafkaPrincipal principal = new KafkaPrincipal(f[1], f[2]);
                InetAddress address = InetAddress.getByName(f[3]);
                AuthorizableRequestContext context = new AuthorizableRequestContext() {
                    public String listenerName() { return "SASL_PLAINTEXT"; }
                    public SecurityProtocol securityProtocol() { return SecurityProtocol.SASL_PLAINTEXT; }
                    public KafkaPrincipal principal() { return principal; }
                    public InetAddress clientAddress() { return address; }
                    public int requestType() { return 3; }
                    public int requestVersion() { return 12; }
                    public String clientId() { return "ask"; }
                    public int correlationId() { return 1; }
                };
                Action action = new Action(AclOperation.fromString(f[4]),
                    new ResourcePattern(ResourceType.TOPIC, f[5], PatternType.LITERAL), 1, false, false);
                System.out.println(authorizer.authorize(context, List.of(action)).get(0));
            }
        }
    }
}
