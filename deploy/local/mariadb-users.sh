# Sourced by mariadb.sh and galera.sh: the bench database and the stampede
# user, on a server reachable through SOCKET as root.
# The anonymous ''@localhost account would shadow stampede@'%' for
# connections from 127.0.0.1, so it goes, and the user exists for 127.0.0.1
# and localhost too.
create_stampede_user() {  # SOCKET PASSWORD
  mariadb -uroot --socket="$1" -e "
    DELETE FROM mysql.global_priv WHERE User='';
    CREATE DATABASE IF NOT EXISTS bench;
    CREATE USER 'stampede'@'%' IDENTIFIED BY '$2';
    CREATE USER 'stampede'@'127.0.0.1' IDENTIFIED BY '$2';
    CREATE USER 'stampede'@'localhost' IDENTIFIED BY '$2';
    GRANT ALL ON bench.* TO 'stampede'@'%';
    GRANT ALL ON bench.* TO 'stampede'@'127.0.0.1';
    GRANT ALL ON bench.* TO 'stampede'@'localhost';
    FLUSH PRIVILEGES;"
}
