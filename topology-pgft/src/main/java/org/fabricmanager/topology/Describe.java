package org.fabricmanager.topology;

/** Text for devices and links in recognition messages: GUID, name and port, as operators read them. */
final class Describe {
    private Describe() {
    }

    static String device(Fabric fabric, long guid) {
        String name = fabric.switchByGuid(guid).map(FabricSwitch::name)
                .or(() -> fabric.nodeByGuid(guid).map(EndNode::name)).orElse(null);
        return name == null ? Guids.format(guid) : Guids.format(guid) + " (" + name + ")";
    }

    static String link(Fabric fabric, Link link) {
        return "link " + device(fabric, link.a()) + " port " + link.aPort() + " - " + device(fabric, link.b())
                + " port " + link.bPort();
    }
}
